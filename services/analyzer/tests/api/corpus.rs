//! The golden corpus over HTTP: filled in once the corpus lands.
