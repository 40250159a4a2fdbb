//! An origin written by hand over TCP, for the origins a framework would never be: one that
//! answers fixed bytes (two `Content-Length`s, an obs-folded header, a `101` without an
//! `Upgrade`), one that reads a request and closes, one that closes kept connections, one
//! that never answers, one that answers an upload before reading its body. It records every
//! request head it read, so a test can count what reached it.

use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Largest request head read; a test never sends more.
const MAX_HEAD: usize = 16 * 1024;
/// How long a silent origin holds a connection before letting it go.
const SILENT_FOR: Duration = Duration::from_secs(30);

/// What the origin does with each request it reads.
#[derive(Clone, Copy, Debug)]
pub enum Behaviour {
    /// Writes these bytes, then closes.
    Answer(&'static str),
    /// Closes without a byte of answer.
    Close,
    /// Answers a connection's first request with these bytes and keeps it open; reads the
    /// next one and closes (an origin closing an idle connection as a request arrives).
    FirstOnly(&'static str),
    /// Answers the first request it ever reads with these bytes and keeps that connection
    /// open; every later request, on any connection, is read and dropped (an origin that
    /// closes a kept connection as a request arrives, and then the new one too).
    OnceOnly(&'static str),
    /// Never answers; holds the connection until the other side closes it.
    Silent,
    /// Answers these bytes as soon as it has read a request's head, without reading its body,
    /// then holds the connection (reading and dropping what comes) until the other side closes
    /// it: an origin that answers an upload early.
    Early(&'static str),
}

/// A running hand-written origin.
pub struct RawOrigin {
    pub port: u16,
    heads: Arc<Mutex<Vec<String>>>,
    closed_by_peer: Arc<Mutex<usize>>,
}

impl RawOrigin {
    /// Listens on a free port and serves every connection with `behaviour`.
    pub async fn start(behaviour: Behaviour) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let heads: Arc<Mutex<Vec<String>>> = Arc::default();
        let closed_by_peer: Arc<Mutex<usize>> = Arc::default();
        let (seen, closed) = (heads.clone(), closed_by_peer.clone());
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (seen, closed) = (seen.clone(), closed.clone());
                tokio::spawn(serve(stream, behaviour, seen, closed));
            }
        });
        Self {
            port,
            heads,
            closed_by_peer,
        }
    }

    /// `http://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The request heads read so far, in order.
    pub fn heads(&self) -> Vec<String> {
        self.heads.lock().expect("heads").clone()
    }

    /// How many requests reached this origin.
    pub fn received(&self) -> usize {
        self.heads.lock().expect("heads").len()
    }

    /// How many silent connections the other side closed.
    pub fn closed_by_peer(&self) -> usize {
        *self.closed_by_peer.lock().expect("closed")
    }
}

async fn serve(
    mut stream: TcpStream,
    behaviour: Behaviour,
    seen: Arc<Mutex<Vec<String>>>,
    closed: Arc<Mutex<usize>>,
) {
    if let Behaviour::Early(bytes) = behaviour {
        return answer_early(stream, bytes, &seen, &closed).await;
    }
    let Some(head) = read_request(&mut stream).await else {
        return;
    };
    let first_ever = {
        let mut seen = seen.lock().expect("heads");
        seen.push(head);
        seen.len() == 1
    };
    let keep_one = match behaviour {
        Behaviour::FirstOnly(bytes) => Some(bytes),
        Behaviour::OnceOnly(bytes) if first_ever => Some(bytes),
        _ => None,
    };
    if let Some(bytes) = keep_one {
        let _ = stream.write_all(bytes.as_bytes()).await;
        if let Some(next) = read_request(&mut stream).await {
            seen.lock().expect("heads").push(next);
        }
        return;
    }
    match behaviour {
        Behaviour::Answer(bytes) => {
            let _ = stream.write_all(bytes.as_bytes()).await;
            let _ = stream.shutdown().await;
        }
        Behaviour::Close
        | Behaviour::FirstOnly(_)
        | Behaviour::OnceOnly(_)
        | Behaviour::Early(_) => {}
        Behaviour::Silent => {
            let mut rest = [0u8; 512];
            let read = tokio::time::timeout(SILENT_FOR, stream.read(&mut rest)).await;
            if matches!(read, Ok(Ok(0))) {
                *closed.lock().expect("closed") += 1;
            }
        }
    }
}

/// [`Behaviour::Early`]: answers after the head, then reads until the other side closes.
async fn answer_early(
    mut stream: TcpStream,
    bytes: &str,
    seen: &Mutex<Vec<String>>,
    closed: &Mutex<usize>,
) {
    let Some(head) = read_head(&mut stream).await else {
        return;
    };
    seen.lock().expect("heads").push(head);
    let _ = stream.write_all(bytes.as_bytes()).await;
    let mut rest = [0u8; 4096];
    let read_to_end = async {
        while let Ok(read) = stream.read(&mut rest).await {
            if read == 0 {
                *closed.lock().expect("closed") += 1;
                return;
            }
        }
    };
    let _ = tokio::time::timeout(SILENT_FOR, read_to_end).await;
}

/// Reads one request head and its `Content-Length` body; `None` at EOF first.
async fn read_request(stream: &mut TcpStream) -> Option<String> {
    let head = read_head(stream).await?;
    let length: usize = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().ok())
                .flatten()
        })
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body).await.ok()?;
    Some(head)
}

/// Reads one request head; `None` at EOF first.
async fn read_head(stream: &mut TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && head.len() < MAX_HEAD {
        if stream.read_exact(&mut byte).await.is_err() {
            return None;
        }
        head.push(byte[0]);
    }
    Some(String::from_utf8_lossy(&head).into_owned())
}
