"""Suite-wide settings that must be in place before any test module imports a library."""

from __future__ import annotations

import os

# A local Ray started by the suite binds to the loopback address: with this variable at 0, Ray's
# `get_node_ip_address` returns 127.0.0.1 instead of the LAN address "from the perspective" of the network, and
# the GCS, raylet and workers listen there. `ray.init(_node_ip_address="127.0.0.1")` does not do it in Ray 2.60
# (the GCS still listens on every interface). Ray reads the variable when it is imported, hence here.
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
