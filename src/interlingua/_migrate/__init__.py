"""What ``interlingua migrate`` does, as library code: read the inputs into records, convert each one,
and write envelopes, session files, format files or stored sessions (the CLI module parses the options,
runs :func:`interlingua.cli.migrate.run` and prints).

Modules: :mod:`.common` (the record of one conversation, shared encoders), :mod:`.records` (inputs ->
records), :mod:`.file_sinks` (``-o`` writers and the reject file, written atomically), :mod:`.store_sink`
(``--store`` batches), :mod:`.logs` (agent logs), :mod:`.stores` (stored-conversation exports),
:mod:`.session` (long sessions of session files).
"""
