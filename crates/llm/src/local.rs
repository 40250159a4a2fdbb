//! The local provider: what callers get when no language model is configured.
//!
//! It says so, then gives a compact digest of the request (message count; the last user
//! message's word, line and character counts and its opening sentence), computed only from
//! the request: the same request gives the same reply, byte for byte, on any machine.

use crate::config::LOCAL_MODEL;
use crate::{ChatMessage, ChatReply, ChatRequest, Provider, Role};

/// The opening every local reply starts with, so a reader knows no model wrote it.
pub(crate) const PREAMBLE: &str =
    "No language model is configured; here is a summary of what you sent: ";

/// The longest opening sentence quoted, in characters.
const OPENING_CHARS: usize = 160;

/// The local reply to `request`.
pub(crate) fn answer(request: &ChatRequest) -> ChatReply {
    ChatReply {
        content: format!("{PREAMBLE}{}", digest(&request.messages)),
        model: LOCAL_MODEL.to_owned(),
        provider: Provider::Local,
        usage: None,
    }
}

fn digest(messages: &[ChatMessage]) -> String {
    let total = counted(messages.len(), "message");
    let Some(last) = messages
        .iter()
        .rev()
        .find(|message| message.role == Role::User)
    else {
        return format!("{total}, none from a user.");
    };
    let text = last.content.as_str();
    let words = text.split_whitespace().count();
    if words == 0 {
        return format!("{total}; the last user message is empty.");
    }
    format!(
        "{total}; the last user message has {} on {} ({}) and begins \u{201c}{}\u{201d}.",
        counted(words, "word"),
        counted(text.trim().lines().count(), "line"),
        counted(text.chars().count(), "character"),
        opening(text)
    )
}

/// The first sentence of the first non-blank line, whitespace collapsed, cut at
/// [`OPENING_CHARS`] with `…`.
fn opening(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or_default();
    let sentence = sentence_end(line).map_or(line, |end| &line[..end]);
    let collapsed = sentence.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut chars = collapsed.chars();
    let mut opening: String = chars.by_ref().take(OPENING_CHARS).collect();
    if chars.next().is_some() {
        opening.push('…');
    }
    opening
}

/// The byte index just past the first `.`, `!` or `?` that a space follows.
fn sentence_end(line: &str) -> Option<usize> {
    line.char_indices()
        .filter(|&(_, c)| matches!(c, '.' | '!' | '?'))
        .map(|(index, c)| index + c.len_utf8())
        .find(|&end| line[end..].starts_with(char::is_whitespace))
}

fn counted(count: usize, noun: &str) -> String {
    let plural = if count == 1 { "" } else { "s" };
    format!("{count} {noun}{plural}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply_to(messages: Vec<ChatMessage>) -> String {
        let content = answer(&ChatRequest::new(messages)).content;
        content
            .strip_prefix(PREAMBLE)
            .expect("every local reply says no model is configured")
            .to_owned()
    }

    #[test]
    fn digests_the_last_user_message() {
        let digest = reply_to(vec![
            ChatMessage::system("You are terse."),
            ChatMessage::user("earlier question"),
            ChatMessage::assistant("earlier answer"),
            ChatMessage::user("Why does the build fail?  It worked yesterday.\nLog below:\nE1"),
        ]);
        assert_eq!(
            digest,
            "4 messages; the last user message has 11 words on 3 lines (60 characters) and \
             begins \u{201c}Why does the build fail?\u{201d}."
        );
    }

    #[test]
    fn says_when_there_is_nothing_to_digest() {
        assert_eq!(reply_to(vec![]), "0 messages, none from a user.");
        assert_eq!(
            reply_to(vec![ChatMessage::system("rules")]),
            "1 message, none from a user."
        );
        assert_eq!(
            reply_to(vec![ChatMessage::user(" \n\t ")]),
            "1 message; the last user message is empty."
        );
    }

    #[test]
    fn a_long_opening_is_cut_on_a_character_boundary() {
        let digest = reply_to(vec![ChatMessage::user("é".repeat(300))]);
        let quoted = format!("\u{201c}{}…\u{201d}.", "é".repeat(OPENING_CHARS));
        assert!(digest.ends_with(&quoted), "{digest}");
        assert!(digest.starts_with("1 message; the last user message has 1 word on 1 line (300"));
    }

    #[test]
    fn an_abbreviation_without_a_following_space_does_not_end_the_sentence() {
        assert_eq!(opening("  v1.2 broke it! Now what?"), "v1.2 broke it!");
        assert_eq!(
            opening("\n\nno punctuation at all"),
            "no punctuation at all"
        );
    }
}
