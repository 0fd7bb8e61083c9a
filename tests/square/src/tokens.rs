//! Card tokens: Square's reusable sandbox tokens and the single-use ones the
//! SDK stand-in mints.

use std::collections::HashMap;

use crate::cards::{AcceptedCard, Card, Decline, SANDBOX_TOKENS};
use crate::ids;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenError {
    /// Neither a sandbox token nor one this stand-in minted.
    Unknown,
    /// A minted token that a payment already used.
    Used,
}

#[derive(Debug, PartialEq, Eq)]
pub struct TokenBookFull {
    pub limit: usize,
}

#[derive(Debug)]
struct Minted {
    accepted: AcceptedCard,
    used: bool,
    /// The `verifyBuyer()` token made for it, if any.
    verification: Option<String>,
}

#[derive(Debug)]
pub struct TokenBook {
    minted: HashMap<String, Minted>,
    /// Bounds memory: a browser demo mints one token per checkout attempt.
    limit: usize,
}

impl TokenBook {
    pub fn new(limit: usize) -> Self {
        TokenBook {
            minted: HashMap::new(),
            limit,
        }
    }

    pub fn mint(&mut self, accepted: AcceptedCard) -> Result<String, TokenBookFull> {
        if self.minted.len() >= self.limit {
            return Err(TokenBookFull { limit: self.limit });
        }
        let token = ids::card_token();
        self.minted.insert(
            token.clone(),
            Minted {
                accepted,
                used: false,
                verification: None,
            },
        );
        Ok(token)
    }

    /// Spends a token on a charge. Sandbox tokens are never spent; a minted
    /// token is spent by its first charge whatever that charge's outcome,
    /// as a real nonce is.
    /// `verification_token`, when it is the one `verifyBuyer()` made for
    /// this token, verifies the buyer; any other is as good as none.
    pub fn redeem(
        &mut self,
        source_id: &str,
        verification_token: Option<&str>,
    ) -> Result<(Card, Option<Decline>), TokenError> {
        if let Some((_, decline)) = SANDBOX_TOKENS.iter().find(|(token, _)| *token == source_id) {
            return Ok((Card::sandbox_visa(), *decline));
        }
        let minted = self.minted.get_mut(source_id).ok_or(TokenError::Unknown)?;
        if minted.used {
            return Err(TokenError::Used);
        }
        minted.used = true;
        let verified =
            verification_token.is_some() && minted.verification.as_deref() == verification_token;
        if verified {
            minted.accepted.verified = true;
        }
        Ok((minted.accepted.card.clone(), minted.accepted.outcome()))
    }

    /// The `verifyBuyer()` token made for a token, if any.
    pub fn verification_of(&self, source_id: &str) -> Option<&str> {
        self.minted
            .get(source_id)
            .and_then(|m| m.verification.as_deref())
    }

    /// The SCA of a card this stand-in tokenized.
    pub fn sca_of(&self, source_id: &str) -> Option<crate::cards::Sca> {
        self.minted.get(source_id).map(|m| m.accepted.sca)
    }

    /// `verifyBuyer()` on an unused token this stand-in made: answers the
    /// verification token to charge it with (the same one if asked again).
    pub fn verify_buyer(&mut self, source_id: &str) -> Result<String, TokenError> {
        let minted = self.minted.get_mut(source_id).ok_or(TokenError::Unknown)?;
        if minted.used {
            return Err(TokenError::Used);
        }
        Ok(minted
            .verification
            .get_or_insert_with(|| ids::card_token().replace("cnon:", "verf:"))
            .clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn visa() -> AcceptedCard {
        AcceptedCard {
            card: Card::sandbox_visa(),
            decline: None,
            sca: crate::cards::Sca::NotNeeded,
            verified: false,
            wallet_needs_verification: false,
        }
    }

    #[test]
    fn minted_tokens_are_single_use() {
        let mut book = TokenBook::new(10);
        let token = book.mint(visa()).unwrap();
        assert!(token.starts_with("cnon:"));
        assert!(book.redeem(&token, None).is_ok());
        assert_eq!(book.redeem(&token, None), Err(TokenError::Used));
    }

    #[test]
    fn sandbox_tokens_are_reusable_and_unknown_ones_refused() {
        let mut book = TokenBook::new(10);
        for _ in 0..3 {
            assert_eq!(book.redeem("cnon:card-nonce-ok", None).unwrap().1, None);
        }
        assert_eq!(
            book.redeem("cnon:card-nonce-declined", None).unwrap().1,
            Some(Decline::Generic)
        );
        assert_eq!(book.redeem("cnon:nope", None), Err(TokenError::Unknown));
    }

    #[test]
    fn minting_stops_at_the_limit() {
        let mut book = TokenBook::new(1);
        book.mint(visa()).unwrap();
        assert_eq!(book.mint(visa()), Err(TokenBookFull { limit: 1 }));
    }
}
