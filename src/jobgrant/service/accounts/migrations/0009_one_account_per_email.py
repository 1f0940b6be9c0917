"""No two accounts share an email address, whatever its case: a unique index on lower(email)
(blank addresses aside), which the database enforces beside the code's own checks.

Before it is built, the migration looks for addresses already shared and stops, naming the
accounts, if there are any: an operator decides which account keeps the address (the others get
theirs changed, or emptied if they are deactivated) and runs it again. On PostgreSQL the index is
built CONCURRENTLY, so the table is never locked while servers run (hence a migration outside a
transaction); an index left invalid by a build that failed is dropped and built again.
"""

from django.db import migrations, models
from django.db.models import Count, Q
from django.db.models.functions import Lower

NAME = "one_account_per_email"
TABLE = "accounts_user"
WHERE = "WHERE NOT (\"email\" = '')"
SQL = {
    "postgresql": [
        f'DROP INDEX CONCURRENTLY IF EXISTS "{NAME}";',
        f'CREATE UNIQUE INDEX CONCURRENTLY "{NAME}" ON "{TABLE}" ((LOWER("email"))) {WHERE};',
    ],
    "sqlite": [f'CREATE UNIQUE INDEX "{NAME}" ON "{TABLE}" ((LOWER("email"))) {WHERE};'],
}
REVERSE = {
    "postgresql": [f'DROP INDEX CONCURRENTLY IF EXISTS "{NAME}";'],
    "sqlite": [f'DROP INDEX IF EXISTS "{NAME}";'],
}


def refuse_shared_addresses(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    shared = (
        User.objects.exclude(email="")
        .annotate(address=Lower("email"))
        .values("address")
        .annotate(accounts=Count("pk"))
        .filter(accounts__gt=1)
        .values_list("address", flat=True)
    )
    found = list(shared)
    if not found:
        return
    names = sorted(
        User.objects.annotate(address=Lower("email"))
        .filter(address__in=found)
        .values_list("username", flat=True)
    )
    raise RuntimeError(
        f"{len(found)} email address(es) are used by more than one account ({', '.join(names)}): "
        "give each account its own address, then run the migration again."
    )


class RunSQLByEngine(migrations.RunSQL):
    """RunSQL with the statements of the database's engine."""

    def __init__(self, sql, reverse_sql):
        self.by_engine, self.reverse_by_engine = sql, reverse_sql
        super().__init__(sql["postgresql"], reverse_sql["postgresql"])

    def deconstruct(self):
        return self.__class__.__name__, [self.by_engine, self.reverse_by_engine], {}

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        self._run_sql(schema_editor, self.by_engine[schema_editor.connection.vendor])

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        self._run_sql(schema_editor, self.reverse_by_engine[schema_editor.connection.vendor])


class Migration(migrations.Migration):
    atomic = False  # CREATE INDEX CONCURRENTLY runs outside a transaction

    dependencies = [
        ("accounts", "0008_sealed_second_factor"),
    ]

    operations = [
        migrations.RunPython(refuse_shared_addresses, migrations.RunPython.noop),
        migrations.SeparateDatabaseAndState(
            database_operations=[RunSQLByEngine(SQL, REVERSE)],
            state_operations=[
                migrations.AddConstraint(
                    model_name="user",
                    constraint=models.UniqueConstraint(
                        Lower("email"), condition=~Q(email=""), name=NAME
                    ),
                ),
            ],
        ),
    ]
