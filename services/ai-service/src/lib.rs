//! The ai-service: chat over the user's own findings, and public log analysis.
