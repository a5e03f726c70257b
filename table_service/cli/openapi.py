"""Print the OpenAPI document of the referee panel, or of the event hub (``--hub``).

``python -m table_service.cli.openapi > docs/openapi.json`` and
``python -m table_service.cli.openapi --hub > docs/openapi-hub.json``; tests keep both files equal
to what the apps serve. Here, above both apps, because the document is built from a live app and the
modules that describe the routes sit below the apps that import them.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence

from table_service.event.web import create_hub_app
from table_service.web.app import create_app
from table_service.web.openapi import build_openapi


def main(argv: Sequence[str] | None = None) -> int:
    """Print the document of a default panel app, or of a hub app with ``--hub``."""
    parser = argparse.ArgumentParser(prog="python -m table_service.cli.openapi", description=__doc__)
    parser.add_argument("--hub", action="store_true", help="the event hub's app (docs/openapi-hub.json)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        if args.hub:
            app = create_hub_app(None, users_db=f"{tmp}/users.sqlite3", secret_key="docs")
        else:
            app = create_app({"USERS_DB": f"{tmp}/users.sqlite3", "SECRET_KEY": "docs"})
        sys.stdout.write(json.dumps(build_openapi(app), ensure_ascii=False, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
