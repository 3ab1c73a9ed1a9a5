//! The backend a binding's caller asks for: `auto` (the fastest this CPU
//! runs) or one of the core's, by name or by number. Whether the CPU runs it
//! is the core's answer, when the key is made.

use gcmsiv::Backend;

/// The core's backends, in the order of their numbers (1 to 3; 0 is `auto`):
/// the C header's `GCMSIV_BACKEND_*`, and Java's `Backend` enum.
const NUMBERED: [Backend; 3] = [Backend::Portable, Backend::AesNiClmul, Backend::AesNiVaes];

/// `"auto"` or a backend's name (`"portable"`, `"aesni-clmul"`,
/// `"aesni-vaes"`, as [`Backend::name`]); `None` for any other.
pub fn backend_named(name: &str) -> Option<Backend> {
    match name {
        "auto" => Some(Backend::select()),
        _ => NUMBERED.into_iter().find(|b| b.name() == name),
    }
}

/// 0 for `auto`, else a backend's number (see `NUMBERED`); `None` for any
/// other.
pub fn backend_numbered(number: i32) -> Option<Backend> {
    match number {
        0 => Some(Backend::select()),
        _ => NUMBERED.get(usize::try_from(number).ok()?.checked_sub(1)?).copied(),
    }
}

#[cfg(test)]
mod tests {
    use super::{backend_named, backend_numbered};
    use gcmsiv::Backend;

    #[test]
    fn names_and_numbers() {
        assert_eq!(backend_named("auto"), Some(Backend::select()));
        assert_eq!(backend_named("aesni-clmul"), Some(Backend::AesNiClmul));
        assert_eq!(backend_named("AUTO"), None);
        assert_eq!(backend_numbered(0), Some(Backend::select()));
        assert_eq!(backend_numbered(1), Some(Backend::Portable));
        assert_eq!(backend_numbered(3), Some(Backend::AesNiVaes));
        assert_eq!([-1, 4, i32::MIN].map(backend_numbered), [None; 3]);
    }
}
