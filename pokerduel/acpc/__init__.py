"""The ACPC network protocol (version 2.0.0) for ``holdem.nolimit.2p.reverse_blinds``: a client that seats
any pokerduel player at an ACPC dealer, and a dealer that hosts two-seat matches for any ACPC clients.

See ``docs/acpc.md``. ``protocol`` parses and formats the lines, ``agent`` wraps a pokerduel player for
one decision at a time (with the keys and memory banks of a local duplicate match), ``client`` and
``dealer`` are the two network ends, with their per-line work in numba (``_feed``, ``_deal``).
"""

from .protocol import ProtocolError

__all__ = ["ProtocolError"]
