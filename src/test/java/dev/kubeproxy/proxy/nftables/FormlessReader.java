package dev.kubeproxy.proxy.nftables;

/** A table reader for tests whose read is their own and whose forms are never compared. */
abstract class FormlessReader implements TableReader {
  @Override
  public String ruleForm(Rule rule) {
    return "";
  }

  @Override
  public String keyForm(Element element) {
    return "";
  }

  @Override
  public String elementForm(Element element) {
    return "";
  }
}
