"""The benchmark rows, one module per row family; :func:`install` registers them with the harness in
the report's order (the public-path rows of ``public_path.py`` come after them).

==================  =====================================================================
module              rows (``--only`` keys)
==================  =====================================================================
``jsonl``           (1) ``decode``, (2) ``encode``
``validate``        (3) ``validate``, (3b) ``validate-process``
``memory``          (4) ``memory``, (4b) ``memory-cli``
``startup``         (9) ``startup``
``mapping``         (5) ``mapping``, (5b) ``mapping-ops``
``streams``         (6) ``stream``, (6b) ``stream-long``
``store``           (7) ``store``, (8) ``store-pg``
``store_cli``       (10) ``migrate-store``, (11) ``store-import-rss``
==================  =====================================================================
"""

from __future__ import annotations

from harness import RowBuilder, register_row

from . import jsonl, mapping, memory, startup, store, store_cli, streams, validate

ROWS: list[tuple[str, RowBuilder]] = [
    ("decode", jsonl.row_decode),
    ("encode", jsonl.row_encode),
    ("validate", validate.row_validate),
    ("memory", memory.row_memory),
    ("memory-cli", memory.row_memory_cli),
    ("validate-process", validate.row_validate_process),
    ("startup", startup.row_startup),
    ("mapping", mapping.row_mapping),
    ("mapping-ops", mapping.row_mapping_ops),
    ("stream", streams.row_stream),
    ("stream-long", streams.row_stream_long),
    ("store", store.row_store),
    ("store-pg", store.row_store_pg),
    ("migrate-store", store_cli.row_migrate_store),
    ("store-import-rss", store_cli.row_store_import_rss),
]
"""Every row key and its builder, in the order the report shows them."""


def install() -> None:
    """Register :data:`ROWS` (idempotent: a key registered again keeps its place)."""
    for key, fn in ROWS:
        register_row(key)(fn)
