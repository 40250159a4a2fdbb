//! The ingress from outside: the real `ingress` binary, spawned per test on port 0 with a
//! generated ingress file, in front of small actix origins started in the test.

mod admin;
mod body_size;
mod body_timeout;
mod client_streams;
mod connections;
mod early_answer;
mod edge;
mod headers;
mod http2;
mod http2_bounds;
mod http2_strict;
mod keep_alive;
mod metering;
mod names;
mod origins;
mod paths;
mod process;
mod raw_origin;
mod refusals;
mod replay;
mod request_id;
mod request_id_backend;
mod restart;
mod rolling;
mod rules;
mod secure;
mod send_timeout;
mod streaming;
mod strict;
mod timeout;
mod tls;
mod tls_reload;
mod upgrade;
mod validate;
mod websocket;

/// A client that never pools across tests and never follows redirects.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("a client")
}
