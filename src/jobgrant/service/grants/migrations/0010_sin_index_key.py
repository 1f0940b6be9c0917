"""The SIN blind index moves to its own key (JOBGRANT_SIN_INDEX_KEY): every index held is
recomputed, for trainees and participants (see grants/participants/sin_keys.py)."""

from django.db import migrations


def reindex(apps, schema_editor):  # type: ignore[no-untyped-def]
    from jobgrant.service.registry.identifiers import decrypt_sin, sin_blind_index

    for app_label, name in (("registry", "Trainee"), ("grants", "Participant")):
        model = apps.get_model(app_label, name)
        for row in model.objects.exclude(sin_ciphertext=None).iterator():
            number = decrypt_sin(row.sin_key_id, bytes(row.sin_ciphertext))
            model.objects.filter(pk=row.pk).update(sin_index=sin_blind_index(number))


class Migration(migrations.Migration):
    dependencies = [
        ("grants", "0009_payments"),
        ("registry", "0003_choice_labels"),
    ]
    operations = [migrations.RunPython(reindex, migrations.RunPython.noop)]
