"""The referee engine: a pure fold from table events to table state (plus device effects).

    >>> from table_service.engine import initial_state, apply, fold, state_to_json
    >>> state, effects = apply(initial_state(), {"t_ms": 0, "type": "device_status_changed",
    ...     "source": "system", "data": {"device": "camera", "status": "online"}})
    >>> state_to_json(state)["devices"]["camera"]
    'online'

No threads, no wall clock, no I/O: the time is the event's ``t_ms``. ``docs/events.md``
documents every event type, the flags, the effects and the state's JSON view. The thread that
feeds it and the store that keeps the log are ``table_service.runner`` and
``table_service.store``.
"""

from table_service.engine.apply import HANDLERS, apply, apply_in_place, device_effects, fold
from table_service.engine.errors import EngineError, EventRejected
from table_service.engine.events import EVENT_TYPES, REFEREE_TYPES, ROLES, SOURCES, check_envelope
from table_service.engine.flags import ARTICLES
from table_service.engine.state import State, copy_state, initial_state, state_to_json

__all__ = [
    "ARTICLES",
    "EVENT_TYPES",
    "HANDLERS",
    "REFEREE_TYPES",
    "ROLES",
    "SOURCES",
    "EngineError",
    "EventRejected",
    "State",
    "apply",
    "apply_in_place",
    "check_envelope",
    "copy_state",
    "device_effects",
    "fold",
    "initial_state",
    "state_to_json",
]
