"""``python -m table_service`` is the same as the ``guandan-table`` command."""

from table_service.cli import main

raise SystemExit(main())
