"""Figures and an HTML report from collbench HDF5 result files (see results/SCHEMA.md)."""
