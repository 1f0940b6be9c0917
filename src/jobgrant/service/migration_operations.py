"""Migration operations that keep the servers running while they run (docs/deployment.md,
"Migrations that never stop the service")."""

from __future__ import annotations

from typing import Any

from django.contrib.postgres.operations import AddIndexConcurrently


class AddIndexWithoutLocking(AddIndexConcurrently):
    """An index built CONCURRENTLY on PostgreSQL, where a plain CREATE INDEX would block every
    write to the table while it builds; built plainly on SQLite, the embedded development engine,
    which has no such option (and one writer at a time anyway). Its migration needs
    `atomic = False`, as CONCURRENTLY runs outside a transaction; printing its SQL
    (`sqlmigrate`, the migration check) does not."""

    def database_forwards(self, app_label: str, schema_editor: Any, _: Any, to_state: Any) -> None:
        model = to_state.apps.get_model(app_label, self.model_name)
        if self.allow_migrate_model(schema_editor.connection.alias, model):
            schema_editor.add_index(model, self.index, **self._concurrently(schema_editor))

    def database_backwards(
        self, app_label: str, schema_editor: Any, from_state: Any, _: Any
    ) -> None:
        model = from_state.apps.get_model(app_label, self.model_name)
        if self.allow_migrate_model(schema_editor.connection.alias, model):
            schema_editor.remove_index(model, self.index, **self._concurrently(schema_editor))

    def _concurrently(self, schema_editor: Any) -> dict[str, bool]:
        if schema_editor.connection.vendor != "postgresql":
            return {}
        if not schema_editor.collect_sql:
            self._ensure_not_in_transaction(schema_editor)
        return {"concurrently": True}
