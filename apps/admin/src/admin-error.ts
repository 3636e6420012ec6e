/** A failure the operator can act on: its message is printed as is (`error: …`, exit 1). */
export class AdminError extends Error {}
