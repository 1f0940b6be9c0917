"""The index of an intake's files, built without locking the applications' table."""

from django.db import migrations, models

from jobgrant.service.migration_operations import AddIndexWithoutLocking


class Migration(migrations.Migration):
    atomic = False  # CREATE INDEX CONCURRENTLY runs outside a transaction

    dependencies = [
        ("grants", "0018_intakes"),
    ]

    operations = [
        AddIndexWithoutLocking(
            model_name="application",
            index=models.Index(fields=["intake", "state"], name="application_by_intake"),
        ),
    ]
