//! The driver pipelines, as data (filled in as the passes land).
