"""Dual-model code review of a change against its task spec (seed 002)."""
