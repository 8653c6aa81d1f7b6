/**
 * Netlink sockets to the kernel without native code of our own: libc through JNA
 * ({@link dev.kubeproxy.host.netlink.LibC}), a socket that can be opened inside a named
 * network namespace ({@link dev.kubeproxy.host.netlink.NetlinkSocket}), a message and attribute
 * writer ({@link dev.kubeproxy.host.netlink.MessageWriter}) and the parser of received
 * datagrams ({@link dev.kubeproxy.host.netlink.NetlinkMessage}). The protocol families built on
 * them (nf_tables, conntrack, nfacct, IPVS) live with the backend that uses them.
 *
 * <p>Owns the sockets it opens (closed by their users). May call: nothing else of the agent (JNA and
 * libc only).
 */
package dev.kubeproxy.host.netlink;
