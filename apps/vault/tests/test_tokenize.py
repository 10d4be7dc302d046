from apps.vault.tokenize import fold, query_terms, tokenize


def test_it_keeps_identifiers_whole():
    terms = tokenize("Nach § 3 und §4 gilt: Fehler 404B, ISBN 978-0-553-41802-6, snake_case, v2.1.")
    for identifier in ("§3", "§4", "404b", "978-0-553-41802-6", "snake_case", "v2.1"):
        assert identifier in terms


def test_it_indexes_the_parts_of_an_identifier_beside_the_whole():
    assert tokenize("snake_case") == ["snake_case", "snake", "case"]
    assert tokenize("Prüfungs-Ordnung") == ["pruefungs-ordnung", "pruefungs", "ordnung"]
    assert "41802" in tokenize("978-0-553-41802-6")


def test_it_lowercases_and_folds_umlauts_and_sharp_s_consistently():
    assert tokenize("Prüfung PRÜFUNG Pruefung") == ["pruefung"] * 3
    assert tokenize("Straße STRASSE strasse") == ["strasse"] * 3
    assert tokenize("Öl Äpfel Übung") == ["oel", "aepfel", "uebung"]
    assert fold("Café") == "cafe"


def test_sentence_punctuation_is_not_part_of_a_word():
    assert tokenize("Das Ende. Der Anfang, dann (Klammer)!") == [
        "das",
        "ende",
        "der",
        "anfang",
        "dann",
        "klammer",
    ]


def test_decimal_numbers_stay_whole():
    assert tokenize("3,5 kg und 2.75 m")[:2] == ["3,5", "3"]
    assert "2.75" in tokenize("3,5 kg und 2.75 m")


def test_query_terms_are_distinct_and_in_order():
    assert query_terms("Prüfung prüfung Ordnung") == ["pruefung", "ordnung"]


def test_an_identifier_written_with_a_space_after_the_paragraph_sign_is_one_term():
    assert tokenize("§ 3 Abs. 2") == ["§3", "3", "abs", "2"]


def test_underscores_make_an_identifier_but_other_scripts_and_digits_are_plain_words():
    assert tokenize("__init__") == ["__init__", "init"]
    assert tokenize("мир x² ٣٤") == ["мир", "x2", "٣٤"]


def test_a_command_line_option_keeps_its_dashes_beside_its_words():
    assert tokenize("bzip2 -k --keep-tokens") == [
        "bzip2",
        "-k",
        "k",
        "--keep-tokens",
        "keep",
        "tokens",
    ]
    assert tokenize("e-mail, 3-4 and x - y") == [
        "e-mail",
        "e",
        "mail",
        "3-4",
        "3",
        "4",
        "and",
        "x",
        "y",
    ]
