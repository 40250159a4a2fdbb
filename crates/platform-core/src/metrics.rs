//! What every metrics answer in the estate is: the services' and the ingress's alike.

/// The content type of `prometheus-client`'s text encoding (OpenMetrics).
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";
