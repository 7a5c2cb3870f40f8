// OpenSSL adapter: keys, certificates, signing and verification.
