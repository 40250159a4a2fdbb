//! The analyzer service: token-gated static analysis of logging code.
