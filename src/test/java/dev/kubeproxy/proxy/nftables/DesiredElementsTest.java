package dev.kubeproxy.proxy.nftables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DesiredElementsTest {
  /** Forms that are the key text, and the key text with the comment: what a test can read at a glance. */
  private static final TableReader TEXT_FORMS = new FormlessReader() {
    @Override
    public String keyForm(Element e) {
      return e.keyText();
    }

    @Override
    public String elementForm(Element e) {
      return e.comment() == null ? e.keyText() : e.keyText() + " # " + e.comment();
    }

    @Override
    public <V extends TableVisitor> java.util.Optional<V> read(java.util.function.Supplier<V> visitors) {
      throw new UnsupportedOperationException();
    }
  };

  private static Element element(String key, String comment) {
    return Element.ofMap("m", List.of(key), null, comment);
  }

  @Test
  void kernelElementsAsDesiredAreSettledTheOthersMissing() {
    DesiredElements desired = new DesiredElements(
        List.of(element("a", null), element("b", "x"), element("c", null)), TEXT_FORMS);

    assertTrue(desired.holds("a", "a"));
    assertFalse(desired.holds("b", "b # y"), "same key, another comment: not as desired");
    assertFalse(desired.holds("z", "z"), "a key nobody wants");

    assertEquals(List.of("b", "c"), desired.missing().stream().map(Element::keyText).toList());
  }

  @Test
  void aKeyIsSettledOnceAndARepeatedKeyCountsOnce() {
    DesiredElements desired = new DesiredElements(
        List.of(element("a", null), element("a", "later"), element("b", null)), TEXT_FORMS);

    assertFalse(desired.holds("a", "a # later"), "the first element of a key is the one wanted");
    assertEquals(List.of("a", "b"), desired.missing().stream().map(Element::keyText).toList());
    assertTrue(desired.holds("a", "a"));
    assertFalse(desired.holds("a", "a"), "the kernel holds one element per key");
    assertEquals(List.of("b"), desired.missing().stream().map(Element::keyText).toList());
  }

  @Test
  void keysWithTheSameHashAreToldApart() {
    assertEquals("Aa".hashCode(), "BB".hashCode());
    DesiredElements desired = new DesiredElements(List.of(element("Aa", null), element("BB", null)), TEXT_FORMS);

    assertFalse(desired.holds("AaBB", "AaBB"));
    assertTrue(desired.holds("BB", "BB"));
    assertEquals(List.of("Aa"), desired.missing().stream().map(Element::keyText).toList());
  }

  @Test
  void manyKeysAreAllFound() {
    List<Element> elements = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      elements.add(element("10.0." + i / 256 + "." + i % 256, null));
    }
    DesiredElements desired = new DesiredElements(elements, TEXT_FORMS);

    for (int i = 0; i < 5000; i += 2) {
      String key = "10.0." + i / 256 + "." + i % 256;
      assertTrue(desired.holds(key, key), key);
    }
    assertEquals(2500, desired.missing().size());
    assertTrue(new DesiredElements(List.of(), TEXT_FORMS).missing().isEmpty());
  }
}
