"""The trainer protocol's error codes (src/core/protocols/trainerProtocol.ts, TRAINER_ERROR_CODES)."""

from __future__ import annotations


class TrainerError(Exception):
    """An error the trainer answers with `{"error": {"code", "message"}}`."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def bad_input(message: str) -> TrainerError:
    """A sample failed validation: nothing computed, no candidate."""
    return TrainerError("bad_input", message)


def bad_request(message: str) -> TrainerError:
    return TrainerError("bad_request", message)
