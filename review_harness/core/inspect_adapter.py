"""The one place that reaches into Inspect's private modules.

`PrerequisiteError` is the error Inspect prints as one line, without a traceback, when a task
cannot start (a bad `-T` value, no model). Inspect 0.3.285 has no public export of it, so every
loud one-line failure of a task, the offline provider and the CLI raises it from here; when
Inspect exports it publicly, only this import changes.
"""

from inspect_ai._util.error import PrerequisiteError

__all__ = ["PrerequisiteError"]
