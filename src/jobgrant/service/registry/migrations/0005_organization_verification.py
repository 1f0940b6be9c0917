"""An organization's verification: unverified until an officer checks it (the default, in the
database too, so the servers of the release before register unverified organizations); the
organizations registered before it existed are verified, as they were trusted until now."""

from django.db import migrations, models


def verify_existing(apps, schema_editor):
    """Every organization registered before this release: verified (what it acted as)."""
    apps.get_model("registry", "Employer").objects.update(verification="verified")


class Migration(migrations.Migration):
    dependencies = [
        ("registry", "0004_organization_address"),
    ]

    operations = [
        migrations.AddField(
            model_name="employer",
            name="verification",
            field=models.CharField(
                choices=[
                    ("unverified", "Unverified"),
                    ("verified", "Verified"),
                    ("refused", "Refused"),
                    ("disputed", "Disputed"),
                ],
                db_default="unverified",
                default="unverified",
                max_length=10,
            ),
        ),
        migrations.RunPython(verify_existing, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="employer",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("verification__in", ["unverified", "verified", "refused", "disputed"])
                ),
                name="employer_verification_known",
            ),
        ),
    ]
