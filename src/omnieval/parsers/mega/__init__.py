"""MEGA-Bench answer extraction (pure text steps); the ``megabench`` parser lives with the suite."""
