"""pokerduel: heads-up no-limit hold'em tournaments, evolved recurrent players and top-k selection."""

__version__ = "0.1.0"
