package dev.kubeproxy.trace;

/**
 * One step of a trace: a chain entered and the rule (its text as written) that matched there.
 *
 * @param chain the chain's name
 * @param rule the matching rule's text as the rules were written
 */
public record Step(String chain, String rule) {
}
