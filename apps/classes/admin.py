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
    list_display = ("name", "code", "owner", "created_at")
    search_fields = ("name", "code", "owner__username")
    readonly_fields = ("code", "created_at")
    inlines = [EnrolmentInline]


@admin.register(Enrolment)
class EnrolmentAdmin(admin.ModelAdmin):
    list_display = ("user", "school_class", "role", "created_at")
    list_filter = ("role", "school_class")
    search_fields = ("user__username", "school_class__name")
    autocomplete_fields = ("user", "school_class")
