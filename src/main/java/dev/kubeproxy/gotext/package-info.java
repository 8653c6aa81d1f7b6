/** Go's text forms of values (durations, quoted strings, times, numbers), which upstream's outputs use. Uses nothing of the agent. */
package dev.kubeproxy.gotext;
