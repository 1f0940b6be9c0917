"""The finance officer's pages: budgets (and a pool's drill-down), payments, receivables."""

from django.urls import path
from django.utils.translation import gettext_lazy as _

from jobgrant.service.web.views import finance, finance_payments, finance_receivables

urlpatterns = [
    path(_("budgets/"), finance.budget_page, name="finance-budgets"),
    path(_("budgets.csv"), finance.budget_csv, name="finance-budgets-csv"),
    path(_("budgets/<id:account_id>/"), finance.budget_detail, name="finance-budget"),
    path(
        _("budgets/<id:account_id>/applications/<id:application_id>/"),
        finance.budget_application,
        name="finance-budget-application",
    ),
    path(_("payments/"), finance_payments.payments_page, name="finance-payments"),
    path(_("payments/<id:batch_id>/"), finance_payments.batch_page, name="finance-batch"),
    path(_("payments/<id:batch_id>/hold/"), finance_payments.batch_hold, name="finance-batch-hold"),
    path(
        _("payments/<id:batch_id>/payments/<id:payment_id>/lift/"),
        finance_payments.payment_lift,
        name="finance-payment-lift",
    ),
    path(
        _("payments/<id:batch_id>/authorize/"),
        finance_payments.batch_authorize,
        name="finance-batch-authorize",
    ),
    path(
        _("payments/<id:batch_id>/export.csv"),
        finance_payments.batch_export,
        name="finance-batch-export",
    ),
    path(
        _("payments/<id:batch_id>/confirmations/"),
        finance_payments.batch_confirm,
        name="finance-batch-confirm",
    ),
    path(
        _("payments/<id:batch_id>/confirmations/<id:import_id>/"),
        finance_payments.confirmation_page,
        name="finance-confirmation",
    ),
    path(_("receivables/"), finance_receivables.receivables_page, name="finance-receivables"),
    path(
        _("receivables/<id:receivable_id>/"),
        finance_receivables.receivable_page,
        name="finance-receivable",
    ),
    path(
        _("receivables/<id:receivable_id>/repayments/"),
        finance_receivables.receivable_repay,
        name="finance-receivable-repay",
    ),
    path(
        _("receivables/<id:receivable_id>/write-off/"),
        finance_receivables.receivable_write_off,
        name="finance-receivable-write-off",
    ),
]
