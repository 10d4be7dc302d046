"""IMS QTI 2.1 content packages (Canvas, Blackboard, ONYX, TAO read them): a bank out as one
`assessmentItem` per question (a choice interaction scored by the match_correct template, the
explanation and the source passage as modal feedback, pictures as files of the package), an
`assessmentTest` that lists them and the `imsmanifest.xml`; and a package in (see
docs/study-hub.md#exchange for what is kept).

Django-free: `read` runs in the reading sandbox.
"""

import io
import posixpath
import zipfile
from xml.etree.ElementTree import Element, tostring

from lxml.etree import Element as XmlElement
from lxml.etree import SubElement
from lxml.etree import tostring as xml_bytes

from apps.study.quizzes.bank import (
    SOURCE_CLASS,
    TRUE_FALSE,
    Bank,
    Item,
    add_choice,
    explained,
    joined,
)
from apps.study.untrusted_files import (
    MAX_PICTURE_BYTES,
    MAX_XML_BYTES,
    Pictures,
    UnreadableFile,
    html_text,
    local,
    open_zip,
    parse_xml,
    picture_bytes,
    read_entry,
)

WHAT = "QTI package"
QTI = "http://www.imsglobal.org/xsd/imsqti_v2p1"
CP = "http://www.imsglobal.org/xsd/imscp_v1p1"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
QTI_XSD = "http://www.imsglobal.org/xsd/qti/qtiv2p1/imsqti_v2p1.xsd"
CP_XSD = "http://www.imsglobal.org/xsd/imscp_v1p1.xsd"
MATCH_CORRECT = "http://www.imsglobal.org/question/qti_v2p1/rptemplates/match_correct"
EXPLANATION, SOURCE = "EXPLANATION", "SOURCE"
# Why the other interactions are left out.
NOT_ASKED = {
    "textEntryInteraction": "typed answers are not asked here: every answer is chosen",
    "extendedTextInteraction": "an essay is marked by a person",
    "matchInteraction": "matching pairs are not asked here",
    "associateInteraction": "matching pairs are not asked here",
    "gapMatchInteraction": "filling gaps is not asked here",
    "inlineChoiceInteraction": "choices within the text (cloze) are not asked here",
    "orderInteraction": "putting things in order is not asked here",
    "hottextInteraction": "choosing words in the text is not asked here",
    "uploadInteraction": "an uploaded file is marked by a person",
}

NAMESPACES = {None: QTI, "xsi": XSI}


def q(tag: str) -> str:
    return f"{{{QTI}}}{tag}"


def paragraphs(parent, text: str) -> None:
    """Plain text as <p> elements, its single line breaks as <br/>."""
    for block in (b.strip() for b in text.split("\n\n")):
        if not block:
            continue
        p = SubElement(parent, q("p"))
        lines = block.split("\n")
        p.text = lines[0]
        for line in lines[1:]:
            SubElement(p, q("br")).tail = line


def feedback(item_element, identifier: str, build) -> None:
    # Shown after every attempt: the template never sets FEEDBACK, and "hide" shows a
    # feedback unless the outcome names it.
    element = SubElement(
        item_element,
        q("modalFeedback"),
        outcomeIdentifier="FEEDBACK",
        identifier=identifier,
        showHide="hide",
    )
    build(element)


def item_xml(item: Item, identifier: str, pictures: list[str]) -> bytes:
    root = XmlElement(
        q("assessmentItem"),
        nsmap=NAMESPACES,
        attrib={
            f"{{{XSI}}}schemaLocation": f"{QTI} {QTI_XSD}",
            "identifier": identifier,
            "title": item.text.split("\n")[0][:100],
            "adaptive": "false",
            "timeDependent": "false",
        },
    )
    response = SubElement(
        root, q("responseDeclaration"), identifier="RESPONSE", cardinality="single"
    )
    response.set("baseType", "identifier")
    value = SubElement(SubElement(response, q("correctResponse")), q("value"))
    value.text = f"CHOICE-{item.correct_index + 1}"
    score = SubElement(root, q("outcomeDeclaration"), identifier="SCORE", cardinality="single")
    score.set("baseType", "float")
    SubElement(SubElement(score, q("defaultValue")), q("value")).text = "0"
    SubElement(root, q("outcomeDeclaration"), identifier="FEEDBACK", cardinality="single").set(
        "baseType", "identifier"
    )
    body = SubElement(root, q("itemBody"))
    paragraphs(body, item.text)
    for name in pictures:
        SubElement(SubElement(body, q("p")), q("img"), src=name, alt="")
    shuffle = "false" if item.kind == TRUE_FALSE else "true"
    choices = SubElement(
        body, q("choiceInteraction"), responseIdentifier="RESPONSE", shuffle=shuffle
    )
    choices.set("maxChoices", "1")
    for i, option in enumerate(item.options, 1):
        SubElement(choices, q("simpleChoice"), identifier=f"CHOICE-{i}").text = option
    SubElement(root, q("responseProcessing"), template=MATCH_CORRECT)
    if item.explanation:
        feedback(root, EXPLANATION, lambda element: paragraphs(element, item.explanation))
    if item.source:
        feedback(root, SOURCE, lambda element: source_feedback(element, item))
    return serialised(root)


def source_feedback(element, item: Item) -> None:
    SubElement(element, q("p")).text = f"From {item.source}:"
    paragraphs(SubElement(element, q("blockquote")), item.passage)


def test_xml(bank: Bank, identifiers: list[str]) -> bytes:
    root = XmlElement(
        q("assessmentTest"),
        nsmap=NAMESPACES,
        attrib={f"{{{XSI}}}schemaLocation": f"{QTI} {QTI_XSD}", "identifier": "TEST"},
        title=bank.title,
    )
    part = SubElement(root, q("testPart"), identifier="PART", navigationMode="nonlinear")
    part.set("submissionMode", "simultaneous")
    section = SubElement(
        part, q("assessmentSection"), identifier="SECTION", title=bank.title, visible="true"
    )
    for identifier in identifiers:
        SubElement(section, q("assessmentItemRef"), identifier=identifier, href=f"{identifier}.xml")
    return serialised(root)


def manifest_xml(identifiers: list[str], pictures: dict[str, list[str]]) -> bytes:
    def cp(tag: str) -> str:
        return f"{{{CP}}}{tag}"

    root = XmlElement(
        cp("manifest"),
        nsmap={None: CP, "xsi": XSI},
        attrib={f"{{{XSI}}}schemaLocation": f"{CP} {CP_XSD}", "identifier": "MANIFEST"},
    )
    metadata = SubElement(root, cp("metadata"))
    SubElement(metadata, cp("schema")).text = "QTIv2.1 Package"
    SubElement(metadata, cp("schemaversion")).text = "1.0.0"
    SubElement(root, cp("organizations"))
    resources = SubElement(root, cp("resources"))
    test = SubElement(
        resources, cp("resource"), identifier="TEST", type="imsqti_test_xmlv2p1", href="test.xml"
    )
    SubElement(test, cp("file"), href="test.xml")
    for identifier in identifiers:
        SubElement(test, cp("dependency"), identifierref=identifier)
    for identifier in identifiers:
        href = f"{identifier}.xml"
        resource = SubElement(
            resources,
            cp("resource"),
            identifier=identifier,
            type="imsqti_item_xmlv2p1",
            href=href,
        )
        for name in [href, *pictures[identifier]]:
            SubElement(resource, cp("file"), href=name)
    return serialised(root)


def serialised(root) -> bytes:
    return xml_bytes(root, encoding="UTF-8", xml_declaration=True, pretty_print=True)


def write(bank: Bank) -> bytes:
    out = io.BytesIO()
    identifiers = [f"ITEM-{number}" for number in range(1, len(bank.items) + 1)]
    pictures: dict[str, list[str]] = {}
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        for identifier, item in zip(identifiers, bank.items, strict=True):
            names = []
            for i, uri in enumerate(item.pictures, 1):
                data, extension = picture_bytes(uri)
                names.append(f"{identifier}-picture-{i}.{extension}")
                package.writestr(names[-1], data)
            pictures[identifier] = names
            package.writestr(f"{identifier}.xml", item_xml(item, identifier, names))
        package.writestr("test.xml", test_xml(bank, identifiers))
        package.writestr("imsmanifest.xml", manifest_xml(identifiers, pictures))
    return out.getvalue()


def inner_html(element: Element | None) -> str:
    if element is None:
        return ""
    return (element.text or "") + "".join(tostring(child, encoding="unicode") for child in element)


def without(element: Element, tags: tuple[str, ...]) -> list[Element]:
    """Take the descendants named `tags` out of `element`; they are returned."""
    taken = []
    for parent in list(element.iter()):
        for child in list(parent):
            if child.tag in tags:
                parent.remove(child)
                taken.append(child)
    return taken


def item_pictures(archive: zipfile.ZipFile, name: str, sources: list[str], pictures: Pictures):
    """The pictures an item shows, read from the package (those too large are left out)."""
    folder = posixpath.dirname(name)
    for source in sources:
        path = posixpath.normpath(posixpath.join(folder, source))
        try:
            pictures.by_name[source] = read_entry(archive, path, MAX_PICTURE_BYTES, WHAT)
        except UnreadableFile:
            continue
    return pictures.uris(sources)


def read_choice(root: Element, interaction: Element, index: int, bank: Bank, shown: list[str]):
    correct = {
        (value.text or "").strip()
        for declaration in root.findall("responseDeclaration")
        if declaration.get("identifier") == interaction.get("responseIdentifier")
        for value in declaration.findall("correctResponse/value")
    }
    answers, right_feedback = [], ""
    for choice in interaction.findall("simpleChoice"):
        inline = without(choice, ("feedbackInline", "feedbackBlock"))
        right = choice.get("identifier") in correct
        if right:
            right_feedback = joined(*(html_text(inner_html(f))[0] for f in inline))
        answers.append((html_text(inner_html(choice))[0], right))
    prompt = html_text(inner_html(interaction.find("prompt")))[0]
    body = html_text(inner_html(root.find("itemBody")), skip_class=SOURCE_CLASS)[0]
    general = [
        html_text(inner_html(element))[0]
        for element in root.findall("modalFeedback")
        if element.get("identifier") != SOURCE
    ]
    explanation = explained(right_feedback, *general)
    text, ordered = joined(body, prompt), interaction.get("shuffle") == "false"
    add_choice(bank, index, "choiceInteraction", text, answers, explanation, shown, ordered=ordered)


def read_item(archive: zipfile.ZipFile, href: str, bank: Bank, pictures: Pictures) -> None:
    index = bank.next_index()
    name = posixpath.normpath(href)
    root = parse_xml(read_entry(archive, name, MAX_XML_BYTES, WHAT), f"{WHAT}'s {name}")
    for element in root.iter():
        element.tag = local(element.tag)
    body = root.find("itemBody")
    interactions = (
        [e for e in body.iter() if e.tag.endswith("Interaction")] if body is not None else []
    )
    if len(interactions) != 1:
        reason = "it has several interactions" if interactions else "it asks nothing"
        bank.skip(index, "assessmentItem", reason)
        return
    interaction = interactions[0]
    kind = interaction.tag
    if kind != "choiceInteraction":
        bank.skip(index, kind, NOT_ASKED.get(kind, f"a {kind} is not asked here"))
        return
    if interaction.get("maxChoices", "1") != "1":
        bank.skip(index, kind, "several answers may be chosen")
        return
    without(body, ("choiceInteraction",))
    sources = [img.get("src", "") for img in body.iter("img") if img.get("src")]
    read_choice(root, interaction, index, bank, item_pictures(archive, name, sources, pictures))


def test_title(archive: zipfile.ZipFile, href: str) -> str:
    root = parse_xml(read_entry(archive, posixpath.normpath(href), MAX_XML_BYTES, WHAT), WHAT)
    return (root.get("title") or "").strip()


def read(path) -> Bank:
    with open_zip(path, WHAT) as archive:
        manifest = parse_xml(
            read_entry(archive, "imsmanifest.xml", MAX_XML_BYTES, WHAT), f"{WHAT}'s manifest"
        )
        resources = [r for r in manifest.iter() if local(r.tag) == "resource" and r.get("href")]
        types = [resource.get("type", "") for resource in resources]
        if not any(kind.startswith("imsqti_item_xmlv2p") for kind in types):
            if any("v1p2" in kind for kind in types):
                raise UnreadableFile(
                    "This is a QTI 1.2 package (as Canvas exports its classic quizzes); "
                    "import a QTI 2.1 package, or the bank as Moodle XML."
                )
            raise UnreadableFile("This zip file is not a QTI 2.1 package: it lists no items.")
        bank, pictures = Bank(), Pictures()
        for resource, kind in zip(resources, types, strict=True):
            if kind.startswith("imsqti_test_xmlv2p") and not bank.title:
                bank.title = test_title(archive, resource.get("href"))
            elif kind.startswith("imsqti_item_xmlv2p"):
                read_item(archive, resource.get("href"), bank, pictures)
    return bank
