"""Triggers that make the audit trail append-only in the database (PostgreSQL and SQLite)."""

from django.db import migrations


def install(apps, schema_editor):
    from jobgrant.service.audit import append_only

    append_only.install(schema_editor.connection)


def uninstall(apps, schema_editor):
    from jobgrant.service.audit import append_only

    append_only.uninstall(schema_editor.connection)


class Migration(migrations.Migration):
    dependencies = [("audit", "0001_initial")]

    operations = [migrations.RunPython(install, uninstall)]
