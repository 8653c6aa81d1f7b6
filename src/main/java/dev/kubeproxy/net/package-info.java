/** IP families, addresses and prefixes read and printed as upstream does, and listen addresses. Uses only logging. */
package dev.kubeproxy.net;
