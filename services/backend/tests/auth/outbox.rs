//! The outbox file: one JSON line per mail, exact field names, never interleaved.

use backend::auth::outbox::{Mail, MailFile, MailKind, read_all};

fn otp(to: &str, code: &str) -> Mail {
    Mail {
        to: to.to_owned(),
        kind: MailKind::Otp,
        code: Some(code.to_owned()),
        link: None,
    }
}

#[test]
fn each_mail_is_one_exact_line() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("data").join("outbox.jsonl");
    assert_eq!(read_all(&path).expect("no file yet"), Vec::new());
    let outbox = MailFile::new(path.clone());
    outbox
        .append(&otp("ada@example.com", "042917"))
        .expect("sent");
    let reset = Mail {
        to: "bob@example.com".to_owned(),
        kind: MailKind::PasswordReset,
        code: None,
        link: Some("https://estate.example/reset?token=abc".to_owned()),
    };
    outbox.append(&reset).expect("sent");
    for kind in [MailKind::MagicLink, MailKind::Invitation] {
        outbox
            .append(&Mail {
                to: "c@example.com".to_owned(),
                kind,
                code: None,
                link: None,
            })
            .expect("sent");
    }
    let text = std::fs::read_to_string(&path).expect("written");
    assert_eq!(
        text,
        concat!(
            r#"{"to":"ada@example.com","kind":"otp","code":"042917"}"#,
            "\n",
            r#"{"to":"bob@example.com","kind":"password_reset","link":"https://estate.example/reset?token=abc"}"#,
            "\n",
            r#"{"to":"c@example.com","kind":"magic_link"}"#,
            "\n",
            r#"{"to":"c@example.com","kind":"invitation"}"#,
            "\n",
        )
    );
    let read = read_all(&path).expect("read");
    assert_eq!(read.len(), 4);
    assert_eq!(read[0], otp("ada@example.com", "042917"));
    assert_eq!(read[1], reset);
    assert!(
        !format!("{:?}", read[0]).contains("042917"),
        "Debug hides the code"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_senders_never_interleave() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let outbox = MailFile::new(dir.path().join("outbox.jsonl"));
    let senders: Vec<_> = (0..20)
        .map(|n| {
            let outbox = outbox.clone();
            tokio::task::spawn_blocking(move || {
                outbox.append(&otp(&format!("user{n}@example.com"), &format!("{n:06}")))
            })
        })
        .collect();
    for sender in senders {
        sender.await.expect("joined").expect("sent");
    }
    let text = std::fs::read_to_string(outbox.path()).expect("written");
    assert_eq!(text.lines().count(), 20);
    let mut mails = read_all(outbox.path()).expect("every line parses");
    mails.sort_by_key(|mail| mail.code.clone());
    let expected: Vec<Mail> = (0..20)
        .map(|n| otp(&format!("user{n}@example.com"), &format!("{n:06}")))
        .collect();
    assert_eq!(mails, expected);
}
