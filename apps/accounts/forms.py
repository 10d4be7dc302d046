from django import forms

MAX_STUDENTS_PER_REQUEST = 200
MAX_NAME_LENGTH = 150  # first_name and last_name hold at most this much


class StudentListForm(forms.Form):
    names = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 8, "placeholder": "Ada Lovelace\nAlan Turing\n…"}),
        help_text="One student per line. Usernames are made from the names.",
        error_messages={"required": "Enter at least one name."},
    )

    def clean_names(self) -> list[str]:
        names = [line.strip() for line in self.cleaned_data["names"].splitlines() if line.strip()]
        if not names:
            raise forms.ValidationError("Enter at least one name.")
        if len(names) > MAX_STUDENTS_PER_REQUEST:
            raise forms.ValidationError(
                f"At most {MAX_STUDENTS_PER_REQUEST} students at once; split the list."
            )
        if any(len(name) > MAX_NAME_LENGTH for name in names):
            raise forms.ValidationError(f"A name may have at most {MAX_NAME_LENGTH} characters.")
        return names


class TokenForm(forms.Form):
    name = forms.CharField(
        max_length=100, initial="API token", help_text="Where you will use it, e.g. 'my script'."
    )
