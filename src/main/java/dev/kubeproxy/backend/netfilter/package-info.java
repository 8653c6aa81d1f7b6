/**
 * What the iptables and ipvs backends share: the iptables tools (restore, save, the one choice of
 * the legacy or nft backend of the node) and the sysctls both set. No Kubernetes model here beyond
 * IP families.
 */
package dev.kubeproxy.backend.netfilter;
