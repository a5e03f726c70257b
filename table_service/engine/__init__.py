"""The referee engine: a pure fold from table events to table state (plus device effects).

    >>> from table_service.engine.apply import apply
    >>> from table_service.engine.state import initial_state, state_to_json
    >>> state, effects = apply(initial_state(), {"t_ms": 0, "type": "device_status_changed",
    ...     "source": "system", "data": {"device": "camera", "status": "online"}})
    >>> state_to_json(state)["devices"]["camera"]
    'online'

No threads, no wall clock, no I/O: the time is the event's ``t_ms``. ``docs/events.md``
documents every event type, the flags, the effects and the state's JSON view. The thread that
feeds it and the store that keeps the log are ``table_service.table.runner`` and
``table_service.store.event_log``.
"""
