"""API tokens get a client name (one token per client) and an expiry (ADR 0019).

Tokens issued before keep working for 30 days from this migration, each under a name of its
own (its prefix), so that none collides with another of the same user. The rate limits' cache
table is made here too."""

import datetime as dt

from django.db import migrations, models
from django.utils import timezone


def name_and_date_existing_tokens(apps, schema_editor):
    ApiToken = apps.get_model("accounts", "ApiToken")
    expiry = timezone.now() + dt.timedelta(days=30)
    for token in ApiToken.objects.all():
        token.name = f"token-{token.prefix}-{token.pk}"
        token.expires_at = expiry
        token.save(update_fields=["name", "expires_at"])


def create_cache_table(apps, schema_editor):
    """The table the rate limits count in (settings.CACHES: the database cache, shared by
    every server); nothing when the cache is Redis."""
    from django.core.management import call_command

    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [("accounts", "0002_choice_labels")]

    operations = [
        migrations.AddField(
            model_name="apitoken",
            name="name",
            field=models.CharField(default="default", max_length=64),
        ),
        migrations.AddField(
            model_name="apitoken",
            name="expires_at",
            field=models.DateTimeField(null=True),
        ),
        migrations.RunPython(name_and_date_existing_tokens, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="apitoken",
            name="expires_at",
            field=models.DateTimeField(),
        ),
        migrations.RunPython(create_cache_table, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="apitoken",
            constraint=models.UniqueConstraint(
                fields=("user", "name"), name="one_token_per_client"
            ),
        ),
    ]
