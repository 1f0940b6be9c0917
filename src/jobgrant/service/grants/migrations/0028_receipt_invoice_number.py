"""A receipt's invoice number (the training provider's invoice or receipt number) and its key,
the form in which two numbers are compared; the index of the keys built without locking the
receipts' table."""

from django.db import migrations, models

from jobgrant.service.migration_operations import AddIndexWithoutLocking


class Migration(migrations.Migration):
    atomic = False  # CREATE INDEX CONCURRENTLY runs outside a transaction

    dependencies = [
        ("grants", "0027_burden_declarations_step"),
    ]

    operations = [
        migrations.AddField(
            model_name="receipt",
            name="invoice_key",
            field=models.CharField(
                blank=True,
                db_default="",
                default="",
                help_text="The invoice number as compared: case-folded, without spaces, dashes "
                "and the zeros leading its digits (grants.claims.receipts.invoice_key).",
                max_length=60,
            ),
        ),
        migrations.AddField(
            model_name="receipt",
            name="invoice_number",
            field=models.CharField(
                blank=True,
                db_default="",
                default="",
                help_text="The training provider's invoice or receipt number, as the employer "
                "gave it.",
                max_length=60,
            ),
        ),
        AddIndexWithoutLocking(
            model_name="receipt",
            index=models.Index(
                condition=~models.Q(invoice_key=""),
                fields=["invoice_key"],
                name="receipt_by_invoice",
            ),
        ),
    ]
