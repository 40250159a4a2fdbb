//! [`Flood`]: an HTTP stand-in whose every answer is a 200 with a body far longer than any
//! reader should take, counting the bytes it got to hand over. A relay that bounds what it reads
//! hangs up early; one that buffers the whole answer takes all of it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

/// The body is written in pieces of this size.
const PIECE: usize = 64 * 1024;

/// A running stand-in (its threads live as long as the test process).
pub struct Flood {
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    written: Arc<AtomicUsize>,
}

impl Flood {
    /// Answers every request on a free loopback port with `total` bytes of body: `[` and
    /// spaces, a JSON array that never closes.
    ///
    /// # Panics
    /// When no loopback port can be bound.
    pub fn spawn(total: usize) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free loopback port");
        let base = format!("http://{}", listener.local_addr().expect("an address"));
        let written = Arc::new(AtomicUsize::new(0));
        let counter = written.clone();
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let counter = counter.clone();
                thread::spawn(move || answer(stream, total, &counter));
            }
        });
        Self { base, written }
    }

    /// Body bytes written so far, over every answer (the reader's socket buffers included).
    pub fn written(&self) -> usize {
        self.written.load(Ordering::SeqCst)
    }
}

/// Reads one request (head and `Content-Length` body), then writes the answer until `total`
/// bytes or until the reader hangs up.
fn answer(stream: TcpStream, total: usize, written: &AtomicUsize) {
    let mut reader = BufReader::new(stream);
    let mut length = 0;
    let mut line = String::new();
    while reader.read_line(&mut line).is_ok_and(|read| read > 0) && line != "\r\n" {
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
        line.clear();
    }
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let mut stream = reader.into_inner();
    let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n";
    if stream.write_all(head.as_bytes()).is_err() {
        return;
    }
    let mut piece = vec![b' '; PIECE];
    piece[0] = b'[';
    for _ in 0..total / PIECE {
        if stream.write_all(&piece).is_err() {
            return;
        }
        written.fetch_add(PIECE, Ordering::SeqCst);
        piece[0] = b' ';
    }
}
