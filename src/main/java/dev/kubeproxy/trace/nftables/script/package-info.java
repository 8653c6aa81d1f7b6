/**
 * Reads the nft commands a --dry-run printed (one command a line, as {@code nft -f} takes them)
 * into the typed objects the nftables tracer walks, applying each as the kernel would: the
 * dry run's stand-in for reading the table back, written apart from the code that renders the
 * commands so that a trace over it states what those commands do.
 */
package dev.kubeproxy.trace.nftables.script;
