"""Referee web panel and public broadcast feeds (Flask).

:func:`table_service.web.app.create_app` builds the app; the service attaches its TableRunners with
:func:`table_service.web.tables.attach_table` and serves it with :func:`table_service.web.server.serve`
(cheroot, on a background thread). Blueprints: ``auth`` (login), ``panel`` (HTML pages), ``api``
(JSON + the panel's SSE stream), ``broadcast`` (public, read-only, delayed), ``assignment``,
``enroll``. The read models they serve (feed, fan-out) are :mod:`table_service.views`.

The panel never changes table state itself: every referee action becomes an engine event through
``TableRunner.submit``.
"""
