import pytest

from apps.llm import prompts


def test_a_shipped_template_renders_with_its_values():
    text = prompts.render("tool_choice", tools="- calculator: arithmetic")

    assert "- calculator: arithmetic" in text
    assert "{{" not in text


def test_a_custom_file_overrides_the_shipped_one_on_the_next_call(settings):
    before = prompts.render("tool_choice", tools="- t")
    custom = settings.DATA_DIR / "prompts" / "custom"
    custom.mkdir(parents=True)
    (custom / "tool_choice.md").write_text("Pick one of {{ tools }}, teacher's version.")

    assert prompts.render("tool_choice", tools="A, B") == "Pick one of A, B, teacher's version."

    (custom / "tool_choice.md").unlink()
    assert prompts.render("tool_choice", tools="- t") == before


def test_a_missing_value_is_an_error_not_an_empty_prompt():
    with pytest.raises(prompts.PromptError, match="tools"):
        prompts.render("tool_choice")


@pytest.mark.parametrize("name", ["../secret_key", "nope", "Tool_Choice", ""])
def test_unknown_or_path_like_names_are_refused(name):
    with pytest.raises(prompts.PromptError):
        prompts.render(name)


def test_values_are_inserted_verbatim_even_with_braces():
    custom_json = '{"tool": "{{ tools }}"}'

    text = prompts.render("tool_choice", tools=custom_json)

    assert custom_json in text


def test_the_effective_templates_say_which_are_custom(settings):
    custom = settings.DATA_DIR / "prompts" / "custom"
    custom.mkdir(parents=True)
    (custom / "tool_arguments.md").write_text("Mine: {{ tool }}")

    effective = {t.name: t for t in prompts.effective_templates()}

    assert effective["tool_arguments"].custom is True
    assert effective["tool_arguments"].placeholders == ["tool"]
    assert effective["tool_choice"].custom is False
