# An intake's budget per funder: an earmark on the budget account (ADR 0048).

import django.db.models.deletion
import django.db.models.expressions
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("grants", "0021_intake_closing"),
        ("ledger", "0005_posting_balance_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="budgetaccount",
            name="earmarked_cents",
            field=models.BigIntegerField(db_default=0, default=0),
        ),
        migrations.AlterField(
            model_name="posting",
            name="bucket",
            field=models.CharField(
                choices=[
                    ("appropriation", "Appropriation (source of allocations)"),
                    ("available", "Available"),
                    ("earmarked", "Set aside for an intake, not committed"),
                    ("committed", "Committed, not claimed"),
                    ("claimed", "Claimed, not decided"),
                    ("payable", "Certified, not paid"),
                    ("disbursed", "Disbursed"),
                    ("receivable", "Owed back"),
                    ("recovered", "Recovered"),
                    ("written_off", "Written off"),
                ],
                max_length=16,
            ),
        ),
        migrations.AddConstraint(
            model_name="budgetaccount",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("earmarked_cents__gte", 0),
                    (
                        "earmarked_cents__lte",
                        django.db.models.expressions.CombinedExpression(
                            models.F("allocated_cents"), "-", models.F("committed_cents")
                        ),
                    ),
                ),
                name="earmarked_within_allocation",
            ),
        ),
        migrations.CreateModel(
            name="Earmark",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("budget_cents", models.BigIntegerField(default=0)),
                ("committed_cents", models.BigIntegerField(default=0)),
                (
                    "account",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="earmarks",
                        to="ledger.budgetaccount",
                    ),
                ),
                (
                    "intake",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="earmarks",
                        to="grants.intake",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("intake", "account"), name="one_earmark_per_account"
                    ),
                    models.CheckConstraint(
                        condition=models.Q(
                            ("committed_cents__gte", 0),
                            ("committed_cents__lte", models.F("budget_cents")),
                        ),
                        name="earmark_committed_within_budget",
                    ),
                ],
            },
        ),
    ]
