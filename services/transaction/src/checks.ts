// Admission checks that belong to other issues, as seams called where they
// apply, so that filling them in changes no caller.

/**
 * Identity (issue "Identity"): with IDENTITY_REQUIRED, a sender without a
 * valid certificate in the registry will be refused here (IDENTITY_REQUIRED,
 * 403). Until the registry lands, every sender is allowed. Called for every
 * vault-signed and raw sender; the node's system accounts (faucet) skip it.
 */
export async function checkIdentity(_address: string): Promise<void> {}
