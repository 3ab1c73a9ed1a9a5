//! What AES-GCM-SIV promises when a nonce repeats, shown on real output.
//!
//! Run: `cargo run --release -p gcmsiv --example nonce_misuse`

use gcmsiv::{Aes256GcmSiv, Error};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn main() -> Result<(), Error> {
    // A fixed demo key; real keys are 32 random bytes from the OS.
    let key: [u8; 32] = core::array::from_fn(|i| i as u8);
    let cipher = Aes256GcmSiv::new(&key);
    println!("backend: {}", cipher.backend());

    let nonce = [0x42u8; 12]; // deliberately reused below
    let aad = b"invoice-2026-11";
    let m1 = b"pay 100 EUR to Alice";
    let m2 = b"pay 900 EUR to Mallo";

    let c1 = cipher.encrypt(&nonce, aad, m1)?;
    let c1_again = cipher.encrypt(&nonce, aad, m1)?;
    let c2 = cipher.encrypt(&nonce, aad, m2)?;

    println!("\n1. Same nonce, same message -> same ciphertext (that is all a repeat reveals):");
    println!("   {}\n   {}", hex(&c1), hex(&c1_again));
    assert_eq!(c1, c1_again);

    println!("\n2. Same nonce, different message -> unrelated ciphertexts:");
    println!("   m1: {}\n   m2: {}", hex(&c1), hex(&c2));
    let xor_ct: Vec<u8> = c1.iter().zip(&c2).map(|(a, b)| a ^ b).collect();
    let xor_pt: Vec<u8> = m1.iter().zip(m2).map(|(a, b)| a ^ b).collect();
    println!("   c1 ^ c2 = {}", hex(&xor_ct[..m1.len()]));
    println!("   m1 ^ m2 = {}", hex(&xor_pt));
    println!("   (with AES-GCM these two lines would be equal: the keystream would repeat)");
    assert_ne!(&xor_ct[..m1.len()], xor_pt.as_slice());

    println!("\n3. A tampered ciphertext is rejected and no plaintext is released:");
    let mut tampered = c1.clone();
    tampered[5] ^= 0x01;
    let result = cipher.decrypt(&nonce, aad, &tampered);
    println!("   decrypt(tampered) = {result:?}");
    assert_eq!(result, Err(Error::Authentication));
    let result = cipher.decrypt(&nonce, b"invoice-2026-12", &c1);
    println!("   decrypt(wrong associated data) = {result:?}");
    assert_eq!(result, Err(Error::Authentication));

    let opened = cipher.decrypt(&nonce, aad, &c1)?;
    println!("\n4. The genuine ciphertext opens: {:?}", String::from_utf8_lossy(&opened));
    Ok(())
}
