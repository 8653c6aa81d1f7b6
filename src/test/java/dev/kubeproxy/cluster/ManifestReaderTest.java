package dev.kubeproxy.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.model.objects.ClusterObject;
import dev.kubeproxy.model.objects.Node;
import dev.kubeproxy.model.objects.Service;
import dev.kubeproxy.testutil.tier.Unit;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The documents of one manifest file, as kubectl would read them, decoded straight from the parser. */
@Unit
class ManifestReaderTest {
  @TempDir
  Path tmp;

  private Path file(String name, String text) throws Exception {
    return Files.writeString(tmp.resolve(name), text);
  }

  private static List<String> keys(List<ClusterObject> objects) {
    return objects.stream().map(o -> o.getClass().getSimpleName() + " " + o.metadata().key()).toList();
  }

  @Test
  void documentsListsEmptyDocumentsAndOtherKinds() throws Exception {
    Path f = file("a.yaml", """
        ---
        apiVersion: v1
        kind: Service
        metadata: {name: a}
        spec: {clusterIP: 10.96.0.1, ports: [{port: 80}]}
        ---
        ---
        # only a comment
        ---
        apiVersion: v1
        kind: List
        metadata: {resourceVersion: ""}
        items:
        - apiVersion: v1
          kind: Service
          metadata: {name: b, namespace: shop}
        - apiVersion: v1
          kind: ConfigMap
          metadata: {name: c}
          data: {a: b}
        - apiVersion: v1
          kind: Node
          metadata: {name: node-a}
        ---
        {}
        ---
        apiVersion: v1
        kind: List
        items: null
        metadata: {resourceVersion: ""}
        """);
    assertEquals(List.of("Service default/a", "Service shop/b", "Node node-a"), keys(ManifestReader.read(f)));
    assertEquals(List.of("Node node-a"), keys(ManifestReader.read(f, Set.of("Node"))));
    assertEquals("10.96.0.1", ((Service) ManifestReader.read(f).get(0)).clusterIP());
  }

  /** kubectl and the API server write apiVersion and kind first; a hand-written file may not. */
  @Test
  void apiVersionAndKindMayComeAfterTheOtherFields() throws Exception {
    Path yaml = file("late.yaml", """
        metadata: {name: late}
        spec: {podCIDR: 10.244.0.0/24}
        kind: Node
        status: {addresses: [{type: InternalIP, address: 192.168.0.1}]}
        apiVersion: v1
        ---
        kind: Service
        metadata: {name: web}
        apiVersion: v1
        spec: {ports: [{port: 80}]}
        """);
    List<ClusterObject> read = ManifestReader.read(yaml);
    assertEquals(List.of("Node late", "Service default/web"), keys(read));
    Node node = (Node) read.get(0);
    assertEquals("10.244.0.0/24", node.podCIDR());
    assertEquals("192.168.0.1", node.addresses().get(0).address());
    assertEquals(80, ((Service) read.get(1)).ports().get(0).port());

    Path json = file("two.json", "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"a\"}}\n"
        + "{\"metadata\":{\"name\":\"b\"},\"apiVersion\":\"v1\",\"kind\":\"Service\"}");
    assertEquals(List.of("Service default/a", "Service default/b"), keys(ManifestReader.read(json)));
  }

  @Test
  void aFileThatCannotBeUsedFailsWithItsPosition() throws Exception {
    Path scalar = file("s.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: a}\n---\njust text\n");
    assertEquals(scalar + ":5:1: document 2 is not an object",
        assertThrows(ManifestReader.ManifestException.class, () -> ManifestReader.read(scalar)).getMessage());
    Path noKind = file("k.yaml", "apiVersion: v1\nmetadata: {name: a}\n");
    assertTrue(assertThrows(ManifestReader.ManifestException.class, () -> ManifestReader.read(noKind)).getMessage()
        .endsWith("document 1 has no apiVersion or kind"));
    Path listItem = file("l.yaml", "apiVersion: v1\nkind: List\nitems: [5]\n");
    assertTrue(assertThrows(ManifestReader.ManifestException.class, () -> ManifestReader.read(listItem)).getMessage()
        .endsWith("document 1 is not an object"));
    Path broken = file("b.json", "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"a\"}");
    assertTrue(assertThrows(ManifestReader.ManifestException.class, () -> ManifestReader.read(broken)).getMessage()
        .startsWith(broken + ":1:"));
  }

  /** An object of the wrong shape is reported by its name even when the bad field comes before its metadata. */
  @Test
  void aBadObjectIsReportedByNameAndTheOthersCount() throws Exception {
    Path f = file("bad.yaml", """
        apiVersion: v1
        kind: Service
        spec: {ports: [{port: eighty}]}
        metadata: {name: x, namespace: n}
        ---
        apiVersion: v1
        kind: Service
        metadata:
          name: y
          annotations: {kubectl.kubernetes.io/last-applied-configuration: '{"a": 1}', service.kubernetes.io/topology-mode: Auto}
        """);
    List<String> reported = new ArrayList<>();
    List<ClusterObject> read = ManifestReader.read(f, (kind, namespace, name, problem) ->
        reported.add(kind + " " + namespace + "/" + name + " " + problem));
    assertEquals(List.of("Service default/y"), keys(read));
    assertEquals(List.of("Service n/x " + f + ":1:1: Service does not match the v1 schema: "
        + "spec.ports[0].port: expected a 32-bit integer, got \"eighty\""), reported);
    assertEquals(java.util.Map.of("service.kubernetes.io/topology-mode", "Auto"), read.get(0).metadata().annotations());
  }
}
