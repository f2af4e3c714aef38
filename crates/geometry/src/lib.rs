//! Geometry engine (in progress).
