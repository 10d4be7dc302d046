from django.contrib import admin

from apps.classes.models import Enrolment, SchoolClass


class EnrolmentInline(admin.TabularInline):
    model = Enrolment
    extra = 0
    fields = ("user", "role", "batch", "created_at")
    readonly_fields = ("batch", "created_at")
    autocomplete_fields = ("user",)


@admin.register(SchoolClass)
class SchoolClassAdmin(admin.ModelAdmin):
    list_display = ("name", "code", "owner", "students", "created_at")
    list_select_related = ("owner",)
    search_fields = ("name", "code", "owner__username")
    readonly_fields = ("code", "created_at")
    inlines = [EnrolmentInline]

    def get_queryset(self, request):
        return super().get_queryset(request).with_counts()

    @admin.display(ordering="student_count")
    def students(self, school_class: SchoolClass) -> int:
        return school_class.student_count


@admin.register(Enrolment)
class EnrolmentAdmin(admin.ModelAdmin):
    list_display = ("user", "school_class", "role", "created_at")
    list_select_related = ("user", "school_class")
    list_filter = ("role", "school_class")
    search_fields = ("user__username", "school_class__name")
    autocomplete_fields = ("user", "school_class")
