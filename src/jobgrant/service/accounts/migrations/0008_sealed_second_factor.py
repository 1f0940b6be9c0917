"""The second factor's secrets at rest: every authenticator seed stored in clear is sealed under
JOBGRANT_OTP_KEYS, every recovery code stored in clear is replaced by its digest
(accounts/sealed_secrets.py). Not reversible: the clear values are not kept anywhere."""

from django.db import migrations


def seal(apps, schema_editor):
    from jobgrant.service.accounts.sealed_secrets import code_digest, is_sealed
    from jobgrant.service.accounts.sealed_secrets import seal as seal_seed

    devices = apps.get_model("otp_totp", "TOTPDevice")
    for pk, key in devices.objects.values_list("pk", "key"):
        if not is_sealed(key):
            try:
                bytes.fromhex(key)
            except ValueError:
                continue
            devices.objects.filter(pk=pk).update(key=seal_seed(key))
    tokens = apps.get_model("otp_static", "StaticToken")
    for pk, token in tokens.objects.values_list("pk", "token"):
        if len(token) < 16:  # django-otp's codes are 8 characters, the digests 16
            tokens.objects.filter(pk=pk).update(token=code_digest(token))


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0007_email_change_and_session_epoch"),
        ("otp_totp", "0003_add_timestamps"),
        ("otp_static", "0003_add_timestamps"),
    ]

    operations = [migrations.RunPython(seal, migrations.RunPython.noop, elidable=True)]
