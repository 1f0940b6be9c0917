"""API tokens remember the session epoch they were issued under (ApiToken.user_for refuses one
issued before the epoch was raised). Null for the tokens of the release before: accepted as they
were, and deleted, as they always were, at a deactivation or a new password."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0009_one_account_per_email'),
    ]

    operations = [
        migrations.AddField(
            model_name='apitoken',
            name='epoch',
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
    ]
