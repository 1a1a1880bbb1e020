"""Rebuild pokerduel/data/evaluator_tables.npz, the seven-card evaluator's lookup tables.

    python scripts/build_evaluator_tables.py

The tables are derived from the hand-ranking rules alone (see pokerduel/engine/evaluator_tables.py);
tests/test_evaluator.py checks that the shipped file equals a fresh build.
"""

from pathlib import Path

from pokerduel.engine.evaluator_tables import save_tables

if __name__ == "__main__":
    out = Path(__file__).resolve().parents[1] / "pokerduel" / "data" / "evaluator_tables.npz"
    save_tables(out)
    print(f"wrote {out}")
