"""The one place that reaches into Inspect's private modules.

`PrerequisiteError` is the error Inspect prints as one line, without a traceback, when a task
cannot start (a bad `-T` value, no model). Inspect 0.3.285 has no public export of it, so every
loud one-line failure of a task, the offline provider and the CLI raises it from here; when
Inspect exports it publicly, only this import changes.

`display_print` prints a line through the running display (the plain display's own print, the
log display's logger), which Inspect's public API offers only as counters (`display_counter`, a
no-op in the plain display).

`suspend_store_events` stops the spans opened inside it from copying the whole store at their
start and end. Every span records the store changes made while it was open, so members running
at once would each record every member's writes (Inspect documents this and offers the context
manager for panels of concurrent agents, but exports it only from a private module). A member's
span holds only its model call; the enclosing solver's span still records the member's result
once, when the solver writes it.

`running_sample` is the id and metadata of the sample whose call is being made (Inspect keeps
the active sample in a private module), so a provider's error can name the document.

`sample_model_usage` and `sample_role_usage` are the token usage of the running sample per model
and per role (what its model calls reported), which a gold scorer turns into the cost per
correct finding; Inspect keeps them in a private module.

`json_schema_dump` is a response schema as the providers serialise it (what is sent).

`VIEW_ADDRESS` is where `inspect view` serves when given no --host or --port (Inspect's defaults
live in a private module): the terminal's link to a review in the viewer.

`batch_mode` says whether a model's calls go through its provider's batch API (`--batch`): the
generate config a call resolves to (the evaluated model's includes the eval's, as Inspect merges
it) is read from private modules.
"""

from inspect_ai._util.constants import DEFAULT_SERVER_HOST, DEFAULT_VIEW_PORT
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.model import Model
from inspect_ai.model._model import sample_model_usage, sample_role_usage
from inspect_ai.util._json import json_schema_dump
from inspect_ai.util._store import suspend_store_events

VIEW_ADDRESS = f"http://{DEFAULT_SERVER_HOST}:{DEFAULT_VIEW_PORT}"


def display_print(message: str) -> None:
    """One line through the active display, as Inspect's own messages are printed."""
    from inspect_ai._display.core.active import display

    display().print(message)


def batch_mode(model: Model) -> bool:
    """Whether `model`'s calls go through its provider's batch API: its own config's `batch`, or
    for the model being evaluated the eval's (`inspect eval --batch`), as Inspect resolves them."""
    from inspect_ai.model._generate_config import active_generate_config
    from inspect_ai.model._model import active_model

    own = getattr(model, "config", None)  # a stand-in model without Inspect's config makes no batch calls
    if own is None:
        return False
    config = own.merge(active_generate_config()) if model is active_model() else own
    return bool(config.batch)


def running_sample() -> tuple[str, dict] | None:
    """(id, metadata) of the sample being run; None outside a sample."""
    from inspect_ai.log._samples import sample_active

    active = sample_active()
    if active is None:
        return None
    return str(active.sample.id), dict(active.sample.metadata or {})


__all__ = ["PrerequisiteError", "VIEW_ADDRESS", "batch_mode", "display_print", "json_schema_dump", "running_sample",
           "sample_model_usage", "sample_role_usage", "suspend_store_events"]
